//! Which model answers: an explicit id, or `auto` (weighted quality and cost), `auto-fast`
//! (lowest latency), `auto-cheap` (lowest price); only models whose worst-case cost fits the
//! budget are considered. The result is an ordered list: the first answers, the rest are the
//! fallbacks if it fails before its first byte.

use std::sync::Arc;

use crate::chat::catalogue::{Catalogue, Model};
use crate::chat::health::Health;
use crate::credits::Credits;
use crate::http::openai::GatewayError;

/// The routing decision.
#[derive(Debug, Clone)]
pub struct Route<'a> {
    /// Candidates in order of preference, with the completion-token cap each must respect.
    pub candidates: Vec<(&'a Arc<Model>, u32)>,
    /// Why, in words.
    pub reason: String,
}

/// What routing needs to know about a request.
pub struct Ask<'a> {
    pub model: &'a str,
    pub weights: (f64, f64),
    pub budget: Option<Credits>,
    pub prompt_tokens: u64,
    pub max_tokens: Option<u32>,
}

/// Whether `name` asks for routing (`auto`, `auto-fast`, `auto-cheap`) rather than a model.
pub fn is_auto(name: &str) -> bool {
    matches!(name, "auto" | "auto-fast" | "auto-cheap")
}

/// Decides the candidates for `ask`; `auto-fast` ranks by each model's time to first token as
/// `health` has seen it lately (the catalogue's `latency_ms` until it has seen enough).
pub fn route<'a>(
    catalogue: &'a Catalogue,
    health: &Health,
    ask: &Ask<'_>,
) -> Result<Route<'a>, GatewayError> {
    let cap = |m: &Model| {
        ask.max_tokens
            .unwrap_or(m.max_output_tokens)
            .min(m.max_output_tokens)
    };
    let fits = |m: &Model| {
        ask.budget
            .is_none_or(|budget| m.worst(ask.prompt_tokens, u64::from(cap(m))) <= budget)
    };
    let mode = ask.model;
    if !is_auto(mode) {
        let model = catalogue
            .get(mode)
            .ok_or_else(|| GatewayError::model_not_found(mode))?;
        if !fits(model) {
            return Err(GatewayError::budget_exceeded(format!(
                "{} could cost up to {} for this request (prompt plus {} completion tokens), over budget_limit {}",
                model.id,
                model
                    .worst(ask.prompt_tokens, u64::from(cap(model)))
                    .in_words(),
                cap(model),
                ask.budget.unwrap_or_default()
            )));
        }
        let mut reason = match model.id == mode {
            true => format!("requested model {}", model.id),
            false => format!("requested model {} (named by its alias {mode})", model.id),
        };
        let mut candidates = vec![(model, cap(model))];
        if !model.fallbacks.is_empty() {
            // The named fallbacks, in order, those whose worst case fits the budget.
            let named = model
                .fallbacks
                .iter()
                .filter_map(|name| catalogue.get(name));
            let (fit, over): (Vec<_>, Vec<_>) = named.partition(|m| fits(m));
            candidates.extend(fit.into_iter().map(|m| (m, cap(m))));
            if !over.is_empty() {
                let over: Vec<&str> = over.iter().map(|m| m.id.as_str()).collect();
                reason = format!("{reason}; fallbacks over budget_limit: {}", over.join(", "));
            }
        }
        return Ok(Route { candidates, reason });
    }

    let mut pool: Vec<&Arc<Model>> = catalogue.models().iter().filter(|m| fits(m)).collect();
    if pool.is_empty() {
        return Err(GatewayError::budget_exceeded(format!(
            "no model's worst-case cost for this request fits budget_limit {}; raise it or lower max_tokens",
            ask.budget.unwrap_or_default()
        )));
    }
    let within = match ask.budget {
        Some(budget) => format!(
            "{} of {} models fit budget {budget}",
            pool.len(),
            catalogue.models().len()
        ),
        None => format!("{} models", pool.len()),
    };
    let reason = match mode {
        "auto-fast" => {
            let mut ranked: Vec<_> = pool
                .into_iter()
                .map(|m| (health.first_token_ms(m), m))
                .collect();
            ranked.sort_by(|((a, _), _), ((b, _), _)| a.total_cmp(b));
            let ((ms, observed), fastest) = ranked[0];
            let figure = match observed {
                Some(answers) => format!("{ms:.0} ms, observed over {answers} answers"),
                None => format!("{ms:.0} ms typical, from the catalogue"),
            };
            let reason = format!(
                "auto-fast: {} has the lowest time to first token ({figure}); {within}",
                fastest.id
            );
            pool = ranked.into_iter().map(|(_, m)| m).collect();
            reason
        }
        "auto-cheap" => {
            pool.sort_by_key(|m| m.blended_price());
            format!(
                "auto-cheap: {} is the cheapest ({} per 1k tokens, blended); {within}",
                pool[0].id,
                pool[0].blended_price().in_words()
            )
        }
        _ => {
            let (cost_weight, quality_weight) = ask.weights;
            // Scores are not money: prices enter them as ratios only.
            let price = |m: &Model| m.blended_price().nanos() as f64;
            let min = pool.iter().map(|m| price(m)).fold(f64::INFINITY, f64::min);
            let max = pool.iter().map(|m| price(m)).fold(0.0, f64::max);
            let score = |m: &Model| {
                let cheapness = if max > min {
                    1.0 - (price(m) - min) / (max - min)
                } else {
                    1.0
                };
                quality_weight * m.quality + cost_weight * cheapness
            };
            pool.sort_by(|a, b| {
                score(b)
                    .total_cmp(&score(a))
                    .then(a.blended_price().cmp(&b.blended_price()))
            });
            format!(
                "auto (quality weight {quality_weight:.2}, cost weight {cost_weight:.2}): {} has the best score {:.3} (quality {}, {} per 1k tokens); {within}",
                pool[0].id,
                score(pool[0]),
                pool[0].quality,
                pool[0].blended_price().in_words()
            )
        }
    };
    Ok(Route {
        candidates: pool.into_iter().map(|m| (m, cap(m))).collect(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(model: &str) -> Ask<'_> {
        Ask {
            model,
            weights: (0.5, 0.5),
            budget: None,
            prompt_tokens: 20,
            max_tokens: Some(100),
        }
    }

    fn route<'a>(catalogue: &'a Catalogue, ask: &Ask<'_>) -> Result<Route<'a>, GatewayError> {
        let health = Health::new(catalogue, Default::default(), &Default::default());
        super::route(catalogue, &health, ask)
    }

    fn first(route: Result<Route<'_>, GatewayError>) -> String {
        route.unwrap().candidates[0].0.id.clone()
    }

    #[test]
    fn each_mode_picks_by_its_rule() {
        let catalogue = Catalogue::builtin();
        assert_eq!(first(route(&catalogue, &ask("auto-fast"))), "sim-fast");
        assert_eq!(first(route(&catalogue, &ask("auto-cheap"))), "sim-mini");
        assert_eq!(first(route(&catalogue, &ask("sim-pro"))), "sim-pro");
        let quality_only = Ask {
            weights: (0.0, 1.0),
            ..ask("auto")
        };
        assert_eq!(first(route(&catalogue, &quality_only)), "sim-pro");
        let cost_only = Ask {
            weights: (1.0, 0.0),
            ..ask("auto")
        };
        assert_eq!(first(route(&catalogue, &cost_only)), "sim-mini");
        let balanced = route(&catalogue, &ask("auto")).unwrap();
        assert_eq!(balanced.candidates.len(), 4, "the rest are fallbacks");
        assert!(
            balanced
                .reason
                .starts_with("auto (quality weight 0.50, cost weight 0.50)")
        );
    }

    #[test]
    fn budget_filters_worst_case_cost_and_402s_when_nothing_fits() {
        let catalogue = Catalogue::builtin();
        // sim-pro worst case: (20 * 3 + 100 * 9) / 1000 = 0.96 credits.
        let tight = Ask {
            budget: Credits::parse_floor("0.95"),
            weights: (0.0, 1.0),
            ..ask("auto")
        };
        assert_eq!(first(route(&catalogue, &tight)), "sim-balanced");
        let exact = Ask {
            budget: Credits::parse_floor("0.96"),
            weights: (0.0, 1.0),
            ..ask("auto")
        };
        assert_eq!(first(route(&catalogue, &exact)), "sim-pro");
        let nothing = Ask {
            budget: Credits::parse_floor("0.000001"),
            ..ask("auto")
        };
        assert_eq!(
            route(&catalogue, &nothing).unwrap_err().code,
            Some("budget_exceeded")
        );
        let one_nano_short = Ask {
            budget: Credits::parse_floor("0.959999999"),
            ..ask("sim-pro")
        };
        assert_eq!(
            route(&catalogue, &one_nano_short)
                .unwrap_err()
                .status
                .as_u16(),
            402
        );
        let explicit = Ask {
            budget: Credits::parse_floor("0.5"),
            ..ask("sim-pro")
        };
        assert_eq!(
            route(&catalogue, &explicit).unwrap_err().status.as_u16(),
            402
        );
    }

    #[test]
    fn unknown_models_are_404() {
        let err = route(&Catalogue::builtin(), &ask("gpt-9")).unwrap_err();
        assert_eq!(
            (err.status.as_u16(), err.code),
            (404, Some("model_not_found"))
        );
    }
}
