"""fitgate: would this pod land on the nodes that exist right now, without creating it?"""

__version__ = "0.1.0"
