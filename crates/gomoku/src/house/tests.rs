//! Tests of the house players.
