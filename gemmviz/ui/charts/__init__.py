"""Charts of results: time, GFLOP/s and speedup plots, their axes and legend, the Charts tab with its table, and Compare."""
