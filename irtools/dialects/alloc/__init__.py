"""The allocated dialect: the raw IR after the SET allocator gave its L2 tensors addresses.

`models` are its Pydantic models (the raw ones plus `address` and `start_loading`), `dialect` declares it
(`ALLOC`, with its key scan and the tensor numbering loading completes).
"""
