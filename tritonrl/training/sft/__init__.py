"""The SFT worker (run under torchrun or DeepSpeed), packed attention, the token store, DeepSpeed configs."""
