"""The compiled rules engine: plain functions over the arrays of a :class:`State`."""
