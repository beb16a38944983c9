//! What credits cost in a token's atomic units: exact integer arithmetic from nano-credits,
//! rounded up to a whole unit, so a payment never falls short of the credits it buys.

use alloy_primitives::U256;

use crate::credits::{Credits, DECIMALS};

/// `credits` at `credit_price` atomic units a credit, rounded up; `None` when the price is not
/// a whole number (the API refuses such prices) or the product does not fit 256 bits.
pub fn atomic(credits: Credits, credit_price: &str) -> Option<U256> {
    let price = U256::from_str_radix(credit_price, 10).ok()?;
    let scale = U256::from(10u64.pow(DECIMALS));
    let product = U256::from(credits.nanos()).checked_mul(price)?;
    Some(product.div_ceil(scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credits_become_atomic_units_rounded_up() {
        let credits = |text: &str| Credits::parse_floor(text).unwrap();
        // 0.0102 credit at 10,000 units a credit (0.01 USDC): 102 units exactly.
        assert_eq!(atomic(credits("0.0102"), "10000"), Some(U256::from(102)));
        // A fraction of a unit is a whole unit.
        assert_eq!(atomic(credits("0.000000001"), "10000"), Some(U256::from(1)));
        assert_eq!(atomic(credits("0.0102001"), "10000"), Some(U256::from(103)));
        assert_eq!(atomic(Credits::ZERO, "10000"), Some(U256::ZERO));
        // 18 decimals at a whole token a credit: no overflow.
        let big = atomic(credits("12345.678901234"), "1000000000000000000").unwrap();
        assert_eq!(big.to_string(), "12345678901234000000000");
        assert_eq!(atomic(credits("1"), "1.5"), None);
    }
}
