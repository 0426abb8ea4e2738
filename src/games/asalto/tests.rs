//! Tests of the Asalto rules engine against shared/rules/asalto.md.

use super::*;
use crate::games::perft::perft;

#[test]
fn perft_table_both_paths() {
    let game = Asalto::default();
    let start = game.initial();
    for (depth, want) in [(1, 9), (2, 38), (3, 358), (4, 1610), (5, 16148)] {
        assert_eq!(game.perft_fast(&start, depth), want, "fast perft {depth}");
        assert_eq!(perft(&game, &start, depth), want, "checked perft {depth}");
    }
}
