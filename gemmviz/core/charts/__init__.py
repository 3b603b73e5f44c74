"""The chart kinds every part of gemmviz offers, the style table of their series and the plain-text
explanations beside them.
"""
