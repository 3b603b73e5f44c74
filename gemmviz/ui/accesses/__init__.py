"""The Accesses tab: memory requests a kernel really made (coalescing, banks, block replay)."""
