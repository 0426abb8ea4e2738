//! CSV files a teacher opens in a spreadsheet before handing them on (`arbiter table
//! --bom --delimiter`): Excel on Windows reads a UTF-8 file without a byte-order mark in
//! the machine's legacy code page (`Müller` shows as `MÃ¼ller`), and an Excel set to a
//! language whose decimal mark is a comma splits cells at `;`, not `,`. The files are
//! written as always, then restyled, so every writer of a CSV file stays one.

use crate::error::Error;
use std::path::Path;

/// UTF-8's byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The character between a CSV file's cells: `,` (Excel in English, LibreOffice, every
/// platform's import), `;` (Excel in a language whose decimal mark is a comma) or a tab
/// (Blackboard's Grade Center).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
// Doc comments on the variants would turn `table --help` into its long form.
#[allow(missing_docs)]
pub enum Delimiter {
    Comma,
    Semicolon,
    Tab,
}

impl Delimiter {
    /// The byte written between cells.
    pub fn byte(self) -> u8 {
        match self {
            Delimiter::Comma => b',',
            Delimiter::Semicolon => b';',
            Delimiter::Tab => b'\t',
        }
    }

    /// The option's value, as `--delimiter` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Delimiter::Comma => "comma",
            Delimiter::Semicolon => "semicolon",
            Delimiter::Tab => "tab",
        }
    }
}

/// How a CSV file is laid out for the spreadsheet that opens it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sheet {
    /// Start the file with UTF-8's byte-order mark.
    pub bom: bool,
    /// The cells' separator; none: the file's own.
    pub delimiter: Option<Delimiter>,
}

impl Sheet {
    /// Whether the file is written as it always was.
    pub fn is_plain(&self) -> bool {
        !self.bom && self.delimiter.is_none()
    }
}

/// `bytes`, a CSV file whose cells are separated by `from`, laid out as `sheet` says:
/// the same records, cell for cell (quoted where the new separator needs it).
pub fn restyle(bytes: &[u8], from: u8, sheet: Sheet) -> Vec<u8> {
    let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let mut out = Vec::with_capacity(body.len() + BOM.len());
    if sheet.bom {
        out.extend_from_slice(BOM);
    }
    let to = sheet.delimiter.map_or(from, Delimiter::byte);
    if to == from {
        out.extend_from_slice(body);
        return out;
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(from)
        .has_headers(false)
        .flexible(true)
        .from_reader(body);
    let mut writer = csv::WriterBuilder::new()
        .delimiter(to)
        .flexible(true)
        .from_writer(out);
    for record in reader.byte_records() {
        // A file arbiter wrote itself a moment ago; a record it cannot read again is kept
        // out rather than written half.
        let Ok(record) = record else { continue };
        // Writing into a Vec cannot fail.
        writer.write_byte_record(&record).expect("in-memory csv");
    }
    writer.into_inner().expect("in-memory csv")
}

/// Rewrites the CSV file at `path` (separated by `from`) as `sheet` says, whole or not at
/// all; nothing when it is to stay as it is.
pub fn restyle_file(path: &Path, from: u8, sheet: Sheet) -> Result<(), Error> {
    if sheet.is_plain() {
        return Ok(());
    }
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    super::write_atomic(path, &restyle(&bytes, from, sheet))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_back(bytes: &[u8], delimiter: u8) -> Vec<Vec<String>> {
        let body = bytes.strip_prefix(BOM).unwrap_or(bytes);
        csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .from_reader(body)
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect()
    }

    #[test]
    fn a_restyled_file_holds_the_same_cells_behind_a_bom_and_its_new_separator() {
        let plain = "name,mark,status\nMüller,15.00,\"lost 1 of 2; first: ran out of time\"\n\
                     \"Ng, Li\",20.00,\"two\nlines\"\n";
        let cells = read_back(plain.as_bytes(), b',');
        for delimiter in [Delimiter::Comma, Delimiter::Semicolon, Delimiter::Tab] {
            let sheet = Sheet {
                bom: true,
                delimiter: Some(delimiter),
            };
            let styled = restyle(plain.as_bytes(), b',', sheet);
            assert!(styled.starts_with(BOM), "{}", delimiter.name());
            assert_eq!(read_back(&styled, delimiter.byte()), cells);
        }
        let semicolons = restyle(
            plain.as_bytes(),
            b',',
            Sheet {
                bom: false,
                delimiter: Some(Delimiter::Semicolon),
            },
        );
        let text = String::from_utf8(semicolons).unwrap();
        assert!(text.starts_with("name;mark;status\n"), "{text}");
        // A cell holding the new separator is quoted; one holding the old one no longer
        // needs to be.
        assert!(
            text.contains("\"lost 1 of 2; first: ran out of time\""),
            "{text}"
        );
        assert!(text.contains("Ng, Li;20.00"), "{text}");
    }

    #[test]
    fn a_bom_is_written_once_however_often_a_file_is_restyled() {
        let sheet = Sheet {
            bom: true,
            delimiter: None,
        };
        let once = restyle(b"a,b\n1,2\n", b',', sheet);
        let twice = restyle(&once, b',', sheet);
        assert_eq!(once, twice);
        assert_eq!(&twice[..3], BOM);
        assert_eq!(&twice[3..], b"a,b\n1,2\n");
    }
}
