"""The Exercise tab: a student's kernel checked on the GPU."""
