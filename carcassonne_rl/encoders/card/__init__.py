"""Cardcassonne observation encoder and its per-seat incremental cache."""
