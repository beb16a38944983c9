//! A wallet for the server's tests that signs x402 payments as the official clients do
//! (upto: Permit2 `PermitWitnessTransferFrom`; exact: EIP-3009), with alloy and none of the
//! server's code, and can sign what a client should not (another amount, a past deadline).

use alloy_primitives::{Address, B256, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::Eip712Domain;
use base64::Engine;
use serde_json::{Value, json};

use super::facilitator::{
    CHAIN, PERMIT2, PermitWitnessTransferFrom, TokenPermissions, TransferWithAuthorization,
    UPTO_PROXY, Witness, addr, uint,
};

/// A wallet that pays as the official clients do.
pub struct Wallet {
    pub signer: PrivateKeySigner,
}

impl Wallet {
    /// A wallet with a new random key.
    pub fn new() -> Wallet {
        Wallet {
            signer: PrivateKeySigner::random(),
        }
    }

    pub fn address(&self) -> Address {
        self.signer.address()
    }

    /// `PAYMENT-SIGNATURE` for `requirements` (from a 402's offer), authorizing `amount` (its
    /// own by default), valid until `valid_before` (an hour by default).
    pub fn pay(
        &self,
        requirements: &Value,
        amount: Option<U256>,
        valid_before: Option<u64>,
    ) -> String {
        let scheme = requirements["scheme"].as_str().unwrap();
        let amount = amount.unwrap_or_else(|| uint(&requirements["amount"]).unwrap());
        let deadline = valid_before.unwrap_or(chrono::Utc::now().timestamp() as u64 + 3600);
        let mut nonce = [0u8; 32];
        getrandom::fill(&mut nonce).unwrap();
        let pay_to = addr(&requirements["payTo"]).unwrap();
        let payload = match scheme {
            "exact" => {
                let message = TransferWithAuthorization {
                    from: self.address(),
                    to: pay_to,
                    value: amount,
                    validAfter: U256::ZERO,
                    validBefore: U256::from(deadline),
                    nonce: B256::from(nonce),
                };
                let domain = Eip712Domain::new(
                    Some(
                        requirements["extra"]["name"]
                            .as_str()
                            .unwrap()
                            .to_string()
                            .into(),
                    ),
                    Some(
                        requirements["extra"]["version"]
                            .as_str()
                            .unwrap()
                            .to_string()
                            .into(),
                    ),
                    Some(U256::from(CHAIN)),
                    Some(addr(&requirements["asset"]).unwrap()),
                    None,
                );
                let signature = self.signer.sign_typed_data_sync(&message, &domain).unwrap();
                json!({"signature": signature.to_string(), "authorization": {
                    "from": self.address().to_string(), "to": pay_to.to_string(),
                    "value": amount.to_string(), "validAfter": "0",
                    "validBefore": deadline.to_string(), "nonce": B256::from(nonce).to_string()}})
            }
            _ => {
                let facilitator = addr(&requirements["extra"]["facilitatorAddress"]).unwrap();
                let nonce = U256::from_be_bytes(nonce);
                let message = PermitWitnessTransferFrom {
                    permitted: TokenPermissions {
                        token: addr(&requirements["asset"]).unwrap(),
                        amount,
                    },
                    spender: UPTO_PROXY,
                    nonce,
                    deadline: U256::from(deadline),
                    witness: Witness {
                        to: pay_to,
                        facilitator,
                        validAfter: U256::ZERO,
                    },
                };
                let domain = Eip712Domain::new(
                    Some("Permit2".into()),
                    None,
                    Some(U256::from(CHAIN)),
                    Some(PERMIT2),
                    None,
                );
                let signature = self.signer.sign_typed_data_sync(&message, &domain).unwrap();
                json!({"signature": signature.to_string(), "permit2Authorization": {
                    "from": self.address().to_string(),
                    "permitted": {"token": requirements["asset"], "amount": amount.to_string()},
                    "spender": UPTO_PROXY.to_string(), "nonce": nonce.to_string(),
                    "deadline": deadline.to_string(),
                    "witness": {"to": pay_to.to_string(), "facilitator": facilitator.to_string(),
                        "validAfter": "0"}}})
            }
        };
        let payment = json!({"x402Version": 2, "accepted": requirements, "payload": payload});
        base64::engine::general_purpose::STANDARD.encode(payment.to_string())
    }
}
