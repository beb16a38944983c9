//! The x402 facilitator of the tests, written from the specification with alloy and none of
//! the server's code: it does off chain what a real one does (recovers each payment's EIP-712
//! signer, checks payee, amounts, validity window, the payer's balance and the nonce, and
//! settles by moving the amount in a ledger of balances it keeps, standing in for the chain).
//! The SDK's, the CLI's and the dashboard's tests use this file too (`#[path]`), so every
//! crate's tests pay the same facilitator; `wallet.rs` signs payments as the official clients
//! do.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use alloy_primitives::{Address, B256, U256, address, keccak256};
use alloy_sol_types::{Eip712Domain, SolStruct, sol};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

sol! {
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }
    struct TokenPermissions {
        address token;
        uint256 amount;
    }
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }
    struct PermitWitnessTransferFrom {
        TokenPermissions permitted;
        address spender;
        uint256 nonce;
        uint256 deadline;
        Witness witness;
    }
}

pub const PERMIT2: Address = address!("0x000000000022D473030F116dDEE9F6B43aC78BA3");
pub const UPTO_PROXY: Address = address!("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002");
/// The network, token and payee of the tests' terms.
pub const NETWORK: &str = "eip155:84532";
pub const CHAIN: u64 = 84532;
pub const TOKEN: Address = address!("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
pub const PAY_TO: Address = address!("0x209693Bc6afc0C5328bA36FaF03C514EF312287C");

/// The terms a workspace sets to take payments through `facilitator`: 10,000 units (0.01 of a
/// 6-decimal token) a credit.
pub fn terms(facilitator: &str) -> Value {
    json!({
        "pay_to": PAY_TO.to_string(), "network": NETWORK, "asset": TOKEN.to_string(),
        "asset_name": "USDC", "asset_version": "2", "asset_decimals": 6,
        "credit_price": "10000", "facilitator_url": facilitator,
    })
}

/// What the facilitator holds and has been asked.
#[derive(Default)]
pub struct Ledger {
    pub balances: HashMap<Address, U256>,
    /// (payer, nonce) pairs settled.
    used: HashSet<(Address, U256)>,
    /// Each call: `verify`, `settle`, with its body.
    pub calls: Vec<(String, Value)>,
    /// Answer 503 to everything.
    pub down: bool,
    /// Refuse every settlement with this reason.
    pub refuse_settle: Option<String>,
    transactions: u64,
}

/// A running test facilitator.
pub struct Facilitator {
    pub url: String,
    /// The account that settles `upto` (named in offers' `facilitatorAddress`).
    pub settler: Address,
    pub ledger: Arc<Mutex<Ledger>>,
}

impl Facilitator {
    /// One on a free loopback port, serving until the test's runtime ends.
    pub async fn start() -> Facilitator {
        let settler = address!("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
        let ledger = Arc::new(Mutex::new(Ledger::default()));
        let app = axum::Router::new()
            .route("/supported", get(supported))
            .route("/verify", post(verify))
            .route("/settle", post(settle))
            .with_state((ledger.clone(), settler));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Facilitator {
            url,
            settler,
            ledger,
        }
    }

    /// Gives `payer` `amount` atomic units of the token.
    pub fn fund(&self, payer: Address, amount: u64) {
        self.lock().balances.insert(payer, U256::from(amount));
    }

    pub fn balance(&self, who: Address) -> U256 {
        self.lock().balances.get(&who).copied().unwrap_or_default()
    }

    /// The bodies of the calls named `operation` so far.
    pub fn calls(&self, operation: &str) -> Vec<Value> {
        let ledger = self.lock();
        ledger
            .calls
            .iter()
            .filter(|(op, _)| op == operation)
            .map(|(_, body)| body.clone())
            .collect()
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap()
    }
}

type Shared = State<(Arc<Mutex<Ledger>>, Address)>;

async fn supported(State((ledger, settler)): Shared) -> Response {
    if ledger.lock().unwrap().down {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    Json(json!({"kinds": [
        {"x402Version": 2, "scheme": "exact", "network": NETWORK},
        {"x402Version": 2, "scheme": "upto", "network": NETWORK,
         "extra": {"facilitatorAddress": settler.to_string()}},
    ], "extensions": [], "signers": {"eip155:*": [settler.to_string()]}}))
    .into_response()
}

async fn verify(State((ledger, settler)): Shared, Json(body): Json<Value>) -> Response {
    let mut ledger = ledger.lock().unwrap();
    ledger.calls.push(("verify".into(), body.clone()));
    if ledger.down {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    let verdict = check(&ledger, settler, &body, false);
    Json(match verdict {
        Ok(payment) => json!({"isValid": true, "payer": payment.payer.to_string()}),
        Err(reason) => json!({"isValid": false, "invalidReason": reason}),
    })
    .into_response()
}

async fn settle(State((ledger, settler)): Shared, Json(body): Json<Value>) -> Response {
    let mut ledger = ledger.lock().unwrap();
    ledger.calls.push(("settle".into(), body.clone()));
    if ledger.down {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    let network = NETWORK;
    let refused = |reason: String| {
        Json(
            json!({"success": false, "errorReason": reason, "transaction": "", "network": network}),
        )
        .into_response()
    };
    if let Some(reason) = ledger.refuse_settle.clone() {
        return refused(reason);
    }
    let payment = match check(&ledger, settler, &body, true) {
        Ok(payment) => payment,
        Err(reason) => return refused(reason),
    };
    ledger.used.insert((payment.payer, payment.nonce));
    *ledger.balances.entry(payment.payer).or_default() -= payment.amount;
    *ledger.balances.entry(PAY_TO).or_default() += payment.amount;
    ledger.transactions += 1;
    let transaction = keccak256(ledger.transactions.to_be_bytes());
    Json(
        json!({"success": true, "transaction": transaction.to_string(), "network": network,
        "payer": payment.payer.to_string(), "amount": payment.amount.to_string()}),
    )
    .into_response()
}

/// A payment that passed: who pays, how much (the amount to move now), its nonce.
struct Passed {
    payer: Address,
    amount: U256,
    nonce: U256,
}

pub fn uint(value: &Value) -> Result<U256, String> {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        _ => return Err("invalid_number".into()),
    };
    match text.strip_prefix("0x") {
        Some(hex) => U256::from_str_radix(hex, 16),
        None => U256::from_str_radix(&text, 10),
    }
    .map_err(|_| "invalid_number".into())
}

pub fn addr(value: &Value) -> Result<Address, String> {
    value
        .as_str()
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| "invalid_address".into())
}

fn now() -> U256 {
    U256::from(chrono::Utc::now().timestamp())
}

/// The x402 facilitator checks, `settling` (the amount may then be less than authorized for
/// `upto`).
fn check(
    ledger: &Ledger,
    settler: Address,
    body: &Value,
    settling: bool,
) -> Result<Passed, String> {
    let requirements = &body["paymentRequirements"];
    let payment = &body["paymentPayload"];
    let scheme = payment["accepted"]["scheme"].as_str().unwrap_or_default();
    if requirements["scheme"].as_str() != Some(scheme) || requirements["network"] != NETWORK {
        return Err("scheme_or_network_mismatch".into());
    }
    if addr(&requirements["asset"])? != TOKEN {
        return Err("asset_mismatch".into());
    }
    let pay_to = addr(&requirements["payTo"])?;
    let amount = uint(&requirements["amount"])?;
    let payload = &payment["payload"];
    let signature = payload["signature"].as_str().unwrap_or_default();
    let signature: alloy_primitives::Signature = alloy_primitives::hex::decode(signature)
        .ok()
        .and_then(|bytes| alloy_primitives::Signature::try_from(bytes.as_slice()).ok())
        .ok_or("invalid_signature")?;
    let (payer, nonce, authorized) = match scheme {
        "exact" => {
            let a = &payload["authorization"];
            let message = TransferWithAuthorization {
                from: addr(&a["from"])?,
                to: addr(&a["to"])?,
                value: uint(&a["value"])?,
                validAfter: uint(&a["validAfter"])?,
                validBefore: uint(&a["validBefore"])?,
                nonce: a["nonce"]
                    .as_str()
                    .and_then(|n| n.parse::<B256>().ok())
                    .ok_or("invalid_nonce")?,
            };
            let domain = Eip712Domain::new(
                Some(
                    requirements["extra"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                        .into(),
                ),
                Some(
                    requirements["extra"]["version"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                        .into(),
                ),
                Some(U256::from(CHAIN)),
                Some(TOKEN),
                None,
            );
            let signer = signature
                .recover_address_from_prehash(&message.eip712_signing_hash(&domain))
                .map_err(|_| "invalid_signature")?;
            if signer != message.from {
                return Err("invalid_exact_evm_payload_signature".into());
            }
            if message.to != pay_to {
                return Err("invalid_exact_evm_payload_recipient_mismatch".into());
            }
            if message.value != amount {
                return Err("invalid_exact_evm_payload_authorization_value_mismatch".into());
            }
            if message.validBefore < now() + U256::from(6) || message.validAfter > now() {
                return Err("invalid_exact_evm_payload_authorization_valid_before".into());
            }
            (signer, U256::from_be_bytes(message.nonce.0), message.value)
        }
        "upto" => {
            let a = &payload["permit2Authorization"];
            let message = PermitWitnessTransferFrom {
                permitted: TokenPermissions {
                    token: addr(&a["permitted"]["token"])?,
                    amount: uint(&a["permitted"]["amount"])?,
                },
                spender: addr(&a["spender"])?,
                nonce: uint(&a["nonce"])?,
                deadline: uint(&a["deadline"])?,
                witness: Witness {
                    to: addr(&a["witness"]["to"])?,
                    facilitator: addr(&a["witness"]["facilitator"])?,
                    validAfter: uint(&a["witness"]["validAfter"])?,
                },
            };
            let domain = Eip712Domain::new(
                Some("Permit2".into()),
                None,
                Some(U256::from(CHAIN)),
                Some(PERMIT2),
                None,
            );
            let signer = signature
                .recover_address_from_prehash(&message.eip712_signing_hash(&domain))
                .map_err(|_| "invalid_permit2_signature")?;
            if signer != addr(&a["from"])? {
                return Err("invalid_permit2_signature".into());
            }
            if message.spender != UPTO_PROXY {
                return Err("invalid_permit2_spender".into());
            }
            if message.witness.to != pay_to {
                return Err("invalid_permit2_recipient_mismatch".into());
            }
            if message.witness.facilitator != settler {
                return Err("upto_facilitator_mismatch".into());
            }
            if message.permitted.token != TOKEN {
                return Err("permit2_token_mismatch".into());
            }
            if message.deadline < now() + U256::from(6) || message.witness.validAfter > now() {
                return Err("permit2_deadline_expired".into());
            }
            let fits = match settling {
                true => amount <= message.permitted.amount,
                false => amount == message.permitted.amount,
            };
            if !fits {
                return Err("permit2_amount_mismatch".into());
            }
            (signer, message.nonce, message.permitted.amount)
        }
        _ => return Err("unsupported_scheme".into()),
    };
    if ledger.used.contains(&(payer, nonce)) {
        return Err("nonce_already_used".into());
    }
    let balance = ledger.balances.get(&payer).copied().unwrap_or_default();
    let moving = if settling { amount } else { authorized };
    if balance < moving {
        return Err("insufficient_funds".into());
    }
    Ok(Passed {
        payer,
        amount,
        nonce,
    })
}

/// The requirement of `scheme` in `offer`.
pub fn accepts<'a>(offer: &'a Value, scheme: &str) -> &'a Value {
    offer["accepts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scheme"] == scheme)
        .unwrap_or_else(|| panic!("no {scheme} in {offer}"))
}
