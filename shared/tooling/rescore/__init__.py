"""Re-verify and re-score hosted runs against a frozen task file, without kaggle-benchmarks."""
