"""The torch side of the tile ``features`` policy: the option-scoring heads (distill,
export) and the MaskablePPO policy over them."""
