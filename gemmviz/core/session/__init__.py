"""What was measured and what the user has open: results and the versioned session file, the checks
and physical bounds of every value read, the recorded hardware files' common header, the workspace, and
what Help ▸ About says.
"""
