"""Services that every higher room shares: progress output, user errors and the Ray session.

It imports nothing else of the package, so any room may use it.
"""
