//! Bot pictures: an upload is accepted only if its content is a GIF, JPEG or PNG of at least
//! 175×175 pixels and at most 5 MB; it is decoded, scaled down to fit 512×512 and encoded
//! again as PNG, so no uploaded byte is ever served.

use std::io::Cursor;

use image::{ImageFormat, ImageReader, Limits};

/// The largest upload, in bytes.
pub(crate) const MAX_BYTES: usize = 5 * 1024 * 1024;
/// The smallest width and height, in pixels.
pub(crate) const MIN_SIDE: u32 = 175;
/// The largest side of the stored picture, in pixels.
const STORED_SIDE: u32 = 512;
/// The largest side decoded at all; beyond it the upload is refused before decoding.
const MAX_DECODED_SIDE: u32 = 8_192;

/// Why a picture was refused, in words for the page.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PhotoError {
    #[error("the picture is larger than 5 MB")]
    TooLarge,
    #[error("the picture must be a GIF, JPEG or PNG image")]
    NotAnImage,
    #[error("the picture is {0}×{1} pixels; it must be at least 175×175")]
    TooSmall(u32, u32),
    #[error("the picture is too large to decode ({0}×{1} pixels)")]
    TooManyPixels(u32, u32),
}

/// Checks an upload and returns it re-encoded as PNG.
pub(crate) fn reencode(bytes: &[u8]) -> Result<Vec<u8>, PhotoError> {
    if bytes.len() > MAX_BYTES {
        return Err(PhotoError::TooLarge);
    }
    // The format comes from the content, never from the file's name or declared type.
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| PhotoError::NotAnImage)?;
    if !matches!(
        reader.format(),
        Some(ImageFormat::Gif | ImageFormat::Jpeg | ImageFormat::Png)
    ) {
        return Err(PhotoError::NotAnImage);
    }
    let (width, height) = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map(|r| r.into_dimensions())
        .map_err(|_| PhotoError::NotAnImage)?
        .map_err(|_| PhotoError::NotAnImage)?;
    if width < MIN_SIDE || height < MIN_SIDE {
        return Err(PhotoError::TooSmall(width, height));
    }
    if width > MAX_DECODED_SIDE || height > MAX_DECODED_SIDE {
        return Err(PhotoError::TooManyPixels(width, height));
    }
    let mut reader = reader;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DECODED_SIDE);
    limits.max_image_height = Some(MAX_DECODED_SIDE);
    limits.max_alloc = Some(512 * 1024 * 1024);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|_| PhotoError::NotAnImage)?;
    let fitted = if width > STORED_SIDE || height > STORED_SIDE {
        decoded.thumbnail(STORED_SIDE, STORED_SIDE)
    } else {
        decoded
    };
    let mut png = Vec::new();
    fitted
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .map_err(|_| PhotoError::NotAnImage)?;
    Ok(png)
}

/// The side of the placeholder picture, in pixels.
pub(crate) const PLACEHOLDER_SIDE: u32 = 96;

/// The picture for a bot or person without one (FlipSight's `/img/no_profile.gif`): a grey
/// head and shoulders on a light ground, drawn here so that no third-party image is shipped.
pub(crate) fn placeholder_gif() -> Result<Vec<u8>, image::ImageError> {
    let side = PLACEHOLDER_SIDE as f32;
    let inside = |x: f32, y: f32, (cx, cy, rx, ry): (f32, f32, f32, f32)| {
        ((x - cx) / rx).powi(2) + ((y - cy) / ry).powi(2) <= 1.0
    };
    let head = (side / 2.0, side * 0.38, side * 0.17, side * 0.17);
    let shoulders = (side / 2.0, side, side * 0.34, side * 0.32);
    let picture = image::RgbaImage::from_fn(PLACEHOLDER_SIDE, PLACEHOLDER_SIDE, |x, y| {
        let (x, y) = (x as f32 + 0.5, y as f32 + 0.5);
        if inside(x, y, head) || inside(x, y, shoulders) {
            image::Rgba([0xad, 0xb5, 0xbd, 0xff])
        } else {
            image::Rgba([0xe9, 0xec, 0xef, 0xff])
        }
    });
    let mut gif = Vec::new();
    image::DynamicImage::ImageRgba8(picture)
        .write_to(&mut Cursor::new(&mut gif), ImageFormat::Gif)?;
    Ok(gif)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(width: u32, height: u32, format: ImageFormat) -> Vec<u8> {
        let picture = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut bytes = Vec::new();
        image::DynamicImage::ImageRgb8(picture)
            .write_to(&mut Cursor::new(&mut bytes), format)
            .expect("encode");
        bytes
    }

    fn dimensions(png: &[u8]) -> (u32, u32) {
        let reader = ImageReader::new(Cursor::new(png))
            .with_guessed_format()
            .expect("read");
        assert_eq!(reader.format(), Some(ImageFormat::Png));
        reader.into_dimensions().expect("dimensions")
    }

    #[test]
    fn pictures_are_checked_by_content_and_stored_as_png() {
        // Bytes after the picture's end, as in a file that is both a picture and a script.
        let payload = b"<script>alert(1)</script>";
        for format in [ImageFormat::Png, ImageFormat::Jpeg, ImageFormat::Gif] {
            let mut upload = encoded(200, 180, format);
            upload.extend_from_slice(payload);
            let stored = reencode(&upload).expect("accepted");
            assert_eq!(dimensions(&stored), (200, 180), "{format:?}");
            assert!(
                !stored.windows(payload.len()).any(|w| w == payload),
                "{format:?}: re-encoded, without the uploaded extra bytes"
            );
        }
        let big = reencode(&encoded(1_024, 600, ImageFormat::Png)).expect("accepted");
        assert_eq!(dimensions(&big), (512, 300), "scaled to fit 512×512");
    }

    #[test]
    fn the_placeholder_is_a_small_gif() {
        let gif = placeholder_gif().expect("encoded");
        assert!(gif.starts_with(b"GIF8"), "a GIF");
        assert!(gif.len() < 4_096, "{} bytes", gif.len());
        let picture = image::load_from_memory_with_format(&gif, ImageFormat::Gif)
            .expect("decodes")
            .to_rgba8();
        assert_eq!(picture.dimensions(), (PLACEHOLDER_SIDE, PLACEHOLDER_SIDE));
        let centre = picture.get_pixel(PLACEHOLDER_SIDE / 2, PLACEHOLDER_SIDE * 2 / 5);
        let corner = picture.get_pixel(0, 0);
        assert_ne!(centre, corner, "a figure on a ground");
    }

    #[test]
    fn small_large_and_false_pictures_are_refused() {
        assert_eq!(
            reencode(&encoded(100, 100, ImageFormat::Png)),
            Err(PhotoError::TooSmall(100, 100))
        );
        assert_eq!(
            reencode(&encoded(175, 174, ImageFormat::Png)),
            Err(PhotoError::TooSmall(175, 174))
        );
        assert_eq!(
            reencode(&vec![0u8; MAX_BYTES + 1]),
            Err(PhotoError::TooLarge)
        );
        assert_eq!(
            reencode(b"just text, renamed to photo.png"),
            Err(PhotoError::NotAnImage)
        );
        let bmp = [b"BM".as_slice(), &[0u8; 64]].concat();
        assert_eq!(
            reencode(&bmp),
            Err(PhotoError::NotAnImage),
            "BMP is not offered"
        );
    }
}
