"""The built-in problem suite: problems/ (KernelBench format), solutions/ (reference responses), suite.yaml."""
