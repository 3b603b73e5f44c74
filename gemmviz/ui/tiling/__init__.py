"""The tiling animation: schedules drawn frame by frame, its layout, captions, the Hopper view, the tab and its exports."""
