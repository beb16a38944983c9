//! What a model charges: exact credits for an answer's tokens at its prices (a deployment's
//! own, where it sets them), and the worst case a request could cost.

use super::Model;
use crate::chat::answer::Tokens;
use crate::credits::{Credits, Price};

impl Model {
    /// Credits for `prompt` and `completion` tokens none of which touched a cache, exact.
    pub fn cost(&self, prompt: u64, completion: u64) -> Credits {
        self.charge(&Tokens::new(prompt, completion))
    }

    /// Credits for an answer's `tokens`, exact: its prompt tokens read from or written to a
    /// cache at those prices, the rest at `prompt_price`.
    pub fn charge(&self, tokens: &Tokens) -> Credits {
        let [read, write, write_1h] = self.prompt_prices();
        let cached = tokens
            .cache_read
            .saturating_add(tokens.cache_write)
            .saturating_add(tokens.cache_write_1h);
        let fresh = tokens.prompt.saturating_sub(cached);
        let total = self
            .prompt_price
            .times(fresh)
            .nanos()
            .saturating_add(read.times(tokens.cache_read).nanos())
            .saturating_add(write.times(tokens.cache_write).nanos())
            .saturating_add(write_1h.times(tokens.cache_write_1h).nanos())
            .saturating_add(self.completion_price.times(tokens.completion).nanos());
        Credits::from_nanos(total)
    }

    /// The most a request of `prompt` tokens and at most `cap` completion tokens can cost: its
    /// prompt at the dearest prompt price (a cache write may cost more than a fresh token),
    /// its completion in full; at the dearest deployment's prices.
    pub fn worst(&self, prompt: u64, cap: u64) -> Credits {
        let own = self.own_worst(prompt, cap);
        match self.deployments.len() {
            0 | 1 => own,
            _ => self.deployments.iter().fold(own, |worst, deployment| {
                worst.max(deployment.own_worst(prompt, cap))
            }),
        }
    }

    /// [`Model::worst`] at this model's own prices.
    fn own_worst(&self, prompt: u64, cap: u64) -> Credits {
        let dearest = self
            .prompt_prices()
            .iter()
            .map(|price| price.nanos_per_token())
            .fold(self.prompt_price.nanos_per_token(), u64::max);
        let total = Price::per_token(dearest)
            .times(prompt)
            .nanos()
            .saturating_add(self.completion_price.times(cap).nanos());
        Credits::from_nanos(total)
    }

    /// Cache read, cache write and 1-hour cache write prices, each `prompt_price` when unset.
    fn prompt_prices(&self) -> [Price; 3] {
        let or_prompt = |price: Option<Price>| price.unwrap_or(self.prompt_price);
        [
            or_prompt(self.cache_read_price),
            or_prompt(self.cache_write_price),
            or_prompt(self.cache_write_1h_price),
        ]
    }

    /// Credits per 1k tokens, prompt and completion weighted equally (for ranking by price).
    pub fn blended_price(&self) -> Credits {
        let sum = self.prompt_price.nanos_per_token() + self.completion_price.nanos_per_token();
        Credits::from_nanos(sum.saturating_mul(500))
    }
}
