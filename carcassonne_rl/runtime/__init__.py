"""Services that every higher room shares: progress output, user errors, the Ray session and
the derived seeds (:mod:`.seeds`).

It imports nothing else of the package, so any room may use it.
"""
