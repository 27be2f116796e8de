"""Shared fixtures.  numba compiles each kernel once per session (and caches it on disk)."""
import matplotlib

matplotlib.use("Agg")
