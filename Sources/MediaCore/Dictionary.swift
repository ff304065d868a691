import CFFmpeg

/// An AVDictionary built from Swift options, used with FFmpeg's open calls, which
/// free it and put back the options they did not use (the av_dict_copy → open → free
/// pattern of doc/examples/mux.c, without a dangling copy).
struct Dictionary {
    var pointer: OpaquePointer?

    init(_ options: [String: String]) {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    /// Option names FFmpeg did not recognise.
    var unusedKeys: [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys
    }

    mutating func free() { av_dict_free(&pointer) }
}
