"""Writers over one :class:`gate.model.Report`: each format is a separate module."""
