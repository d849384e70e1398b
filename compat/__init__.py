"""Cross-checks against R (not installed with the package): see README.md here."""
