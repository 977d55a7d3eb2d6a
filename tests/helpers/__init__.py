"""Helpers shared by the tests, imported one way: ``from helpers.card import run``."""
