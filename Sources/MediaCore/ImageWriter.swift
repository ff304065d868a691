import CFFmpeg

/// Encodes pictures as PNG with FFmpeg's own PNG encoder.
public enum ImageWriter {
    /// PNG bytes of a YUV 4:2:0 image (converted to RGB bit-exactly).
    public static func png(of image: PlanarImage) throws -> [UInt8] {
        let rgb = try Frame.video(width: image.width, height: image.height, format: .rgb24)
        try Scaler(quality: .bitExactBilinear).scale(image, into: rgb.image)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw FFmpegError(operation: "avcodec_find_encoder(png)", message: "the linked FFmpeg has no PNG encoder")
        }
        guard var context = Optional(avcodec_alloc_context3(codec)), let c = context else {
            throw FFmpegError(operation: "avcodec_alloc_context3(png)", message: "out of memory")
        }
        defer { avcodec_free_context(&context) }
        c.pointee.width = Int32(image.width)
        c.pointee.height = Int32(image.height)
        c.pointee.pix_fmt = AV_PIX_FMT_RGB24
        c.pointee.time_base = AVRational(num: 1, den: 1)
        try check(avcodec_open2(c, codec, nil), "avcodec_open2(png)")
        try check(avcodec_send_frame(c, rgb.pointer), "avcodec_send_frame(png)")
        try check(avcodec_send_frame(c, nil), "avcodec_send_frame(png flush)")
        let packet = Packet()
        try check(avcodec_receive_packet(c, packet.pointer), "avcodec_receive_packet(png)")
        return Array(UnsafeBufferPointer(start: packet.pointer.pointee.data, count: packet.size))
    }
}
