"""FHIR: CPG PlanDefinition export of guideline versions, FHIRPath conditions, and the CDS Hooks service logic."""
