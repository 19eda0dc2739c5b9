//! The plain-text forms of a few responses, so that a bot can play with `curl` and a shell
//! loop: one value or one decision per line, fields separated by spaces.

use arbiter_arena::{Decision, MatchResult, MatchStatus};
use serde_json::Value;

/// One line per pending decision: `turn <leg> <revision> <moves>`, where `<moves>` is the
/// legal moves joined by commas, or `-1` when the only move is a pass.
pub(crate) fn turn_lines(decisions: &[Decision]) -> String {
    let mut text = String::new();
    for decision in decisions {
        // The text format is for shell scripts, not the hot path: the request is read again.
        let request: Value = serde_json::from_str(&decision.request).unwrap_or_default();
        let moves: Vec<String> = request["legal_moves"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string)
            .collect();
        let moves = if moves.is_empty() {
            "-1".to_owned()
        } else {
            moves.join(",")
        };
        text.push_str(&format!(
            "turn {} {} {moves}\n",
            decision.leg, decision.revision
        ));
    }
    text
}

/// The line for a match that has ended: `end <status> <reason> <total 0> <total 1> <winner>`,
/// with the winner's participant number, or `-1` when there is none.
pub(crate) fn end_line(status: MatchStatus, result: Option<&MatchResult>) -> String {
    let ranking = result.and_then(|r| r.ranking.as_ref());
    let total = |i: usize| {
        ranking
            .and_then(|r| r.totals.get(i))
            .map_or_else(|| "-".to_owned(), i64::to_string)
    };
    format!(
        "end {} {} {} {} {}\n",
        status.as_str(),
        result.map_or("-", |r| r.reason.as_str()),
        total(0),
        total(1),
        ranking
            .and_then(|r| r.winner)
            .and_then(|w| i64::try_from(w).ok())
            .unwrap_or(-1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_arena::snapshot::Ranking;

    fn decision(leg: usize, revision: u64, request: &str) -> Decision {
        Decision {
            match_id: 1,
            leg,
            revision,
            participant: 0,
            request: request.to_owned(),
        }
    }

    #[test]
    fn turns_become_one_line_each_and_a_pass_is_minus_one() {
        let decisions = [
            decision(0, 4, r#"{"legal_moves":[19,26,37]}"#),
            decision(1, 7, r#"{"legal_moves":[]}"#),
        ];
        assert_eq!(turn_lines(&decisions), "turn 0 4 19,26,37\nturn 1 7 -1\n");
        assert_eq!(turn_lines(&[]), "");
    }

    #[test]
    fn the_end_line_carries_status_reason_totals_and_winner() {
        let ranked = |winner| MatchResult {
            reason: "discs".to_owned(),
            ranking: Some(Ranking {
                winner,
                totals: vec![70, 58],
                rated: true,
                ranks: None,
                teams: None,
            }),
            ratings: None,
        };
        let cases = [
            (
                MatchStatus::Finished,
                Some(ranked(Some(0))),
                "end finished discs 70 58 0\n",
            ),
            (
                MatchStatus::Finished,
                Some(ranked(None)),
                "end finished discs 70 58 -1\n",
            ),
            (
                MatchStatus::Aborted,
                Some(MatchResult::closed("no_first_move")),
                "end aborted no_first_move - - -1\n",
            ),
            (MatchStatus::Expired, None, "end expired - - - -1\n"),
        ];
        for (status, result, line) in cases {
            assert_eq!(end_line(status, result.as_ref()), line);
        }
    }
}
