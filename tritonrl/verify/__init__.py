"""The verifier: parse a model response, run the candidate, judge it."""
