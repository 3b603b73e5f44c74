"""The roofline chart and its tab."""
