"""The kernel variants and their models: the one registry of variants, the closed-form traffic models
(cp.async's and Hopper's of their own), tuned configurations per GPU and a kernel's source as the code views
show it.
"""
