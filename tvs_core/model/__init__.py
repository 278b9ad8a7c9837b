"""Generators: Algorithm 1's order, pair-copula families, the truncated C-vine (TVineSynth) and the
baselines behind one fit/sample interface, found by name in the registry."""
