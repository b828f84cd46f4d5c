"""Constraint extraction: guideline sentences → typed patient constraints (see docs/constraints.md)."""
