"""Servers that offer sleuth's tools to other programs.

:mod:`sleuth.server.mcp` serves the tool registry over the Model Context
Protocol (``sleuth mcp``). Nothing is imported here, so ``import sleuth``
never needs the optional ``mcp`` extra.
"""
