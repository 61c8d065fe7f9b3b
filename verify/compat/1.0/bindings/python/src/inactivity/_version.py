"""The binding's version. Its major version must match the library's (same major = ABI compatible)."""

__version__ = "1.0.0"

#: The INACT_VERSION_NUMBER of the header this binding was written against.
HEADER_VERSION_NUMBER = 10000
HEADER_VERSION_MAJOR = HEADER_VERSION_NUMBER // 10000
