"""The built-in search providers; third-party ones arrive through entry points."""
