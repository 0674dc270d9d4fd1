"""Shared test helpers; test modules import from here, never from each other."""
