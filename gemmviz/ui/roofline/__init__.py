"""The Roofline tab; its chart, one chart kind among the others, is ui/charts/roofline.py."""
