//! The x402 protocol's messages as they travel (specification v2, and v1's payment header):
//! JSON in camelCase, absent fields left out, carried base64-encoded in the `PAYMENT-REQUIRED`,
//! `PAYMENT-SIGNATURE` and `PAYMENT-RESPONSE` headers (v1: `X-PAYMENT`, `X-PAYMENT-RESPONSE`).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The 402's header: what the resource costs and how it may be paid.
pub const PAYMENT_REQUIRED: &str = "payment-required";
/// The client's payment (v2).
pub const PAYMENT_SIGNATURE: &str = "payment-signature";
/// The settlement, on the paid answer (v2).
pub const PAYMENT_RESPONSE: &str = "payment-response";
/// The client's payment (v1).
pub const X_PAYMENT: &str = "x-payment";

/// A 402's offer: `PAYMENT-REQUIRED`, and the `x402` object of the error body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequired {
    pub x402_version: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub resource: ResourceInfo,
    pub accepts: Vec<Requirements>,
}

/// The resource paid for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub url: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub mime_type: String,
}

/// One way to pay: a scheme on a network, an amount of an asset to an address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Requirements {
    /// `exact` or `upto`.
    pub scheme: String,
    /// CAIP-2, e.g. `eip155:84532`.
    pub network: String,
    /// Atomic units of the asset, decimal: what `exact` transfers, the most `upto` may.
    #[serde(alias = "maxAmountRequired", deserialize_with = "numeric")]
    pub amount: String,
    /// The token contract.
    pub asset: String,
    pub pay_to: String,
    pub max_timeout_seconds: u64,
    /// The token's EIP-712 `name` and `version`; for `upto`, `facilitatorAddress` and
    /// `assetTransferMethod`.
    #[serde(default)]
    pub extra: Value,
}

/// A client's payment, from `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayload {
    pub x402_version: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceInfo>,
    /// The offer accepted, echoed (v2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Requirements>,
    /// The scheme and network (v1, where there is no `accepted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
    /// The scheme's signed authorization: [`ExactPayload`] or [`UptoPayload`].
    pub payload: Value,
}

/// `exact`'s payload: an EIP-3009 `transferWithAuthorization`, signed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExactPayload {
    pub signature: String,
    pub authorization: Authorization,
}

/// The fields of EIP-3009's `TransferWithAuthorization`, as decimal (and `nonce` hex) text.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authorization {
    pub from: String,
    pub to: String,
    #[serde(deserialize_with = "numeric")]
    pub value: String,
    #[serde(deserialize_with = "numeric")]
    pub valid_after: String,
    #[serde(deserialize_with = "numeric")]
    pub valid_before: String,
    pub nonce: String,
}

/// `upto`'s payload: a Permit2 `PermitWitnessTransferFrom`, signed, that the upto proxy redeems
/// for any amount up to `permitted.amount`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UptoPayload {
    pub permit2_authorization: Permit2Authorization,
    pub signature: String,
}

/// The fields of Permit2's `PermitWitnessTransferFrom` with the upto witness.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permit2Authorization {
    pub from: String,
    pub permitted: Permitted,
    pub spender: String,
    /// Decimal (as the official clients send it) or `0x` hexadecimal.
    #[serde(deserialize_with = "numeric")]
    pub nonce: String,
    #[serde(deserialize_with = "numeric")]
    pub deadline: String,
    pub witness: UptoWitness,
}

/// Permit2's `TokenPermissions`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Permitted {
    pub token: String,
    #[serde(deserialize_with = "numeric")]
    pub amount: String,
}

/// The upto proxy's witness: who is paid, who may settle, from when.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UptoWitness {
    pub to: String,
    pub facilitator: String,
    #[serde(deserialize_with = "numeric")]
    pub valid_after: String,
}

/// What a facilitator answers to `/settle`, and what `PAYMENT-RESPONSE` carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettleResponse {
    pub success: bool,
    #[serde(default)]
    pub transaction: String,
    #[serde(default)]
    pub network: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_reason: Option<String>,
    /// Atomic units settled (`upto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
}

/// What a facilitator answers to `/verify`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponse {
    pub is_valid: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer: Option<String>,
}

/// The body of `/verify` and `/settle`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FacilitatorRequest<'a> {
    pub x402_version: u8,
    pub payment_payload: &'a PaymentPayload,
    pub payment_requirements: &'a Requirements,
}

/// A message as a header value: base64 (standard, padded) of its compact JSON.
pub fn encode<T: Serialize>(message: &T) -> String {
    STANDARD.encode(serde_json::to_vec(message).unwrap_or_default())
}

/// A header value's message; any base64 alphabet, padded or not, is read.
pub fn decode<T: DeserializeOwned>(header: &str) -> Result<T, String> {
    let header = header.trim();
    let bytes = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(header).ok())
        .ok_or("not base64")?;
    serde_json::from_slice(&bytes).map_err(|err| format!("not an x402 payment: {err}"))
}

/// A decimal number sent as text (as the official clients do) or as a JSON number.
fn numeric<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) => Ok(text),
        Value::Number(number) if number.is_u64() => Ok(number.to_string()),
        _ => Err(serde::de::Error::custom("expected a non-negative integer")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payment_from_the_official_python_client_is_read() {
        // PAYMENT-SIGNATURE of x402 2.25.0's upto client (nonce decimal, numbers as text).
        let json = r#"{"x402Version":2,"payload":{"permit2Authorization":{"from":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","permitted":{"token":"0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512","amount":"5000"},"spender":"0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002","nonce":"105040187967887509351754741175092935626930559580484893584745816789070004449926","deadline":"1795688262","witness":{"to":"0x90F79bf6EB2c4f870365E785982E1f101E93b906","facilitator":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC","validAfter":"0"}},"signature":"0xe388"},"accepted":{"scheme":"upto","network":"eip155:31337","asset":"0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512","amount":"5000","payTo":"0x90F79bf6EB2c4f870365E785982E1f101E93b906","maxTimeoutSeconds":300,"extra":{"name":"Test USD","version":"1","assetTransferMethod":"permit2","facilitatorAddress":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"}},"resource":{"url":"http://127.0.0.1:4021/upto","description":"upto demo","mimeType":""}}"#;
        let header = STANDARD.encode(json);
        let payment: PaymentPayload = decode(&header).unwrap();
        assert_eq!(payment.accepted.as_ref().unwrap().scheme, "upto");
        let upto: UptoPayload = serde_json::from_value(payment.payload).unwrap();
        assert_eq!(upto.permit2_authorization.permitted.amount, "5000");
        assert_eq!(upto.permit2_authorization.witness.valid_after, "0");
        // Unpadded and URL-safe base64 are read too.
        assert!(decode::<PaymentPayload>(header.trim_end_matches('=')).is_ok());
    }

    #[test]
    fn a_v1_payment_and_numbers_as_json_numbers_are_read() {
        let json = r#"{"x402Version":1,"scheme":"exact","network":"base-sepolia","payload":{"signature":"0x00","authorization":{"from":"0x1","to":"0x2","value":10000,"validAfter":0,"validBefore":"1740672154","nonce":"0xf3"}}}"#;
        let payment: PaymentPayload = decode(&STANDARD.encode(json)).unwrap();
        assert_eq!(payment.scheme.as_deref(), Some("exact"));
        let exact: ExactPayload = serde_json::from_value(payment.payload).unwrap();
        assert_eq!(exact.authorization.value, "10000");
        assert!(decode::<PaymentPayload>("%%%").is_err());
        assert!(decode::<PaymentPayload>(&STANDARD.encode("{}")).is_err());
    }

    #[test]
    fn a_requirement_is_written_as_the_specification_shows_it() {
        let offer = PaymentRequired {
            x402_version: 2,
            error: None,
            resource: ResourceInfo {
                url: "http://127.0.0.1/v1/chat/completions".into(),
                description: "a chat completion".into(),
                mime_type: "application/json".into(),
            },
            accepts: vec![Requirements {
                scheme: "exact".into(),
                network: "eip155:84532".into(),
                amount: "10000".into(),
                asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
                pay_to: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C".into(),
                max_timeout_seconds: 60,
                extra: serde_json::json!({"name": "USDC", "version": "2"}),
            }],
        };
        let json: Value = serde_json::to_value(&offer).unwrap();
        assert_eq!(json["x402Version"], 2);
        assert!(json.get("error").is_none());
        assert_eq!(json["resource"]["mimeType"], "application/json");
        assert_eq!(
            json["accepts"][0]["payTo"],
            "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
        );
        assert_eq!(json["accepts"][0]["maxTimeoutSeconds"], 60);
        assert_eq!(decode::<PaymentRequired>(&encode(&offer)).unwrap(), offer);
    }
}
