//! Weng-Lin ratings (the Bradley-Terry model with every pair of teams compared, as OpenSkill
//! rates by default), shown on the Glicko-2 scale.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

use crate::{Places, Rating, RatingConfig};

/// A new player's skill in Weng-Lin's own units.
pub(crate) const INITIAL_SKILL: f64 = 25.0;

/// A new player's uncertainty in Weng-Lin's own units.
pub(crate) const INITIAL_UNCERTAINTY: f64 = 25.0 / 3.0;

/// `rating` in Weng-Lin's own units.
pub(crate) fn skill(rating: &Rating, config: &RatingConfig) -> WengLinRating {
    WengLinRating {
        rating: INITIAL_SKILL + (rating.rating - config.initial_rating) / config.skill_points,
        uncertainty: rating.deviation / config.skill_points,
    }
}

/// A skill in Weng-Lin's units as a rating and deviation on the shown scale.
pub(crate) fn shown(skill: WengLinRating, config: &RatingConfig) -> (f64, f64) {
    (
        config.initial_rating + (skill.rating - INITIAL_SKILL) * config.skill_points,
        skill.uncertainty * config.skill_points,
    )
}

/// Every side's rating after one match: the sides of a team make one team, each other side a
/// team of its own, ranked by the best rank among its members.
pub(crate) fn rate(sides: &[Rating], places: &Places<'_>, config: &RatingConfig) -> Vec<Rating> {
    // Teams in the order of their first member; `members[t]` lists team t's sides.
    let mut members: Vec<Vec<usize>> = Vec::new();
    for i in 0..sides.len() {
        match members.iter_mut().find(|team| places.teammates(team[0], i)) {
            Some(team) => team.push(i),
            None => members.push(vec![i]),
        }
    }
    if members.len() < 2 {
        // Nobody to be measured against: nothing changes.
        return sides.to_vec();
    }
    let skills: Vec<Vec<WengLinRating>> = members
        .iter()
        .map(|team| team.iter().map(|&i| skill(&sides[i], config)).collect())
        .collect();
    let teams: Vec<(&[WengLinRating], MultiTeamOutcome)> = members
        .iter()
        .zip(&skills)
        .map(|(team, skills)| {
            let rank = team.iter().map(|&i| places.rank(i)).min().unwrap_or(1);
            (skills.as_slice(), MultiTeamOutcome::new(usize::from(rank)))
        })
        .collect();
    let after = weng_lin_multi_team(&teams, &WengLinConfig::new());
    let mut rated = sides.to_vec();
    for (team, skills) in members.iter().zip(after) {
        for (&i, skill) in team.iter().zip(skills) {
            let (rating, deviation) = shown(skill, config);
            rated[i] = sides[i].recorded(rating, deviation, places.record(i));
        }
    }
    rated
}
