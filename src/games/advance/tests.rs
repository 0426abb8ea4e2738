//! The rules of docs/rules/advance.md, one position per rule.

use super::*;
