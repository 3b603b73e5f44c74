"""The Hardware tab: measured traffic per memory level and the SM block trace."""
