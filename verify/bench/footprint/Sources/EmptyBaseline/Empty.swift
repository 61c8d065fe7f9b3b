// One exported C function that does nothing: the smallest Swift library a C host can load.
@c public func bench_empty() {}
