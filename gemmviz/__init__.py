"""gemmviz: see why tiled matrix multiplication is fast, on a real GPU."""

__version__ = "0.1.0"
