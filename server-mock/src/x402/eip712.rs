//! The EIP-712 typed data each scheme signs, and who signed it: `exact`'s EIP-3009
//! `TransferWithAuthorization` under the token's own domain, `upto`'s Permit2
//! `PermitWitnessTransferFrom` with the upto proxy's witness under Permit2's domain. Hashing and
//! recovery are alloy's (secp256k1 in pure Rust); nothing here is hand-written cryptography.

use std::str::FromStr;

use alloy_primitives::{Address, B256, Signature, U256};
use alloy_sol_types::{Eip712Domain, SolStruct};

use super::wire::{Authorization, Permit2Authorization};

pub use tokctl_x402::{
    PERMIT2, PermitWitnessTransferFrom, TokenPermissions, TransferWithAuthorization, UPTO_PROXY,
    Witness, chain_id, permit2_domain, token_domain,
};

/// An address from its hexadecimal text (checksum or not).
pub fn parse_address(text: &str) -> Result<Address, String> {
    Address::from_str(text.trim()).map_err(|_| format!("{text:?} is not an address"))
}

/// A uint256 from decimal or `0x` hexadecimal text.
pub fn parse_uint(text: &str) -> Result<U256, String> {
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => U256::from_str_radix(hex, 16),
        None => U256::from_str_radix(text, 10),
    };
    parsed.map_err(|_| format!("{text:?} is not an unsigned integer"))
}

/// `authorization` as typed data.
pub fn transfer(authorization: &Authorization) -> Result<TransferWithAuthorization, String> {
    let nonce = authorization.nonce.trim();
    let nonce =
        B256::from_str(nonce).map_err(|_| format!("nonce {nonce:?} is not 32 bytes of hex"))?;
    Ok(TransferWithAuthorization {
        from: parse_address(&authorization.from)?,
        to: parse_address(&authorization.to)?,
        value: parse_uint(&authorization.value)?,
        validAfter: parse_uint(&authorization.valid_after)?,
        validBefore: parse_uint(&authorization.valid_before)?,
        nonce,
    })
}

/// `authorization` as typed data.
pub fn permit(authorization: &Permit2Authorization) -> Result<PermitWitnessTransferFrom, String> {
    Ok(PermitWitnessTransferFrom {
        permitted: TokenPermissions {
            token: parse_address(&authorization.permitted.token)?,
            amount: parse_uint(&authorization.permitted.amount)?,
        },
        spender: parse_address(&authorization.spender)?,
        nonce: parse_uint(&authorization.nonce)?,
        deadline: parse_uint(&authorization.deadline)?,
        witness: Witness {
            to: parse_address(&authorization.witness.to)?,
            facilitator: parse_address(&authorization.witness.facilitator)?,
            validAfter: parse_uint(&authorization.witness.valid_after)?,
        },
    })
}

/// Who signed `message` under `domain`, from a 65-byte `r‖s‖v` signature in hex. (A smart
/// wallet's EIP-1271 signature recovers to no one it holds: such wallets cannot pay here.)
pub fn signer<T: SolStruct>(
    message: &T,
    domain: &Eip712Domain,
    signature: &str,
) -> Result<Address, String> {
    let bytes = alloy_primitives::hex::decode(signature.trim())
        .map_err(|_| "the signature is not hexadecimal".to_string())?;
    let signature = Signature::try_from(bytes.as_slice())
        .map_err(|_| "the signature is not 65 bytes r, s, v".to_string())?;
    signature
        .recover_address_from_prehash(&message.eip712_signing_hash(domain))
        .map_err(|_| "no signer can be recovered from the signature".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x402::wire::{Permitted, UptoWitness};
    use alloy_primitives::{address, b256};

    // Vectors made with the official Python package (x402 2.25.0, eth_account 0.14): anvil's
    // second account signs each message.
    const PAYER: Address = address!("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    const PAY_TO: &str = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
    const USDC: &str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

    #[test]
    fn the_type_hashes_are_the_contracts() {
        let transfer = TransferWithAuthorization::eip712_encode_type();
        assert_eq!(
            alloy_primitives::keccak256(transfer.as_bytes()),
            b256!("0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267")
        );
        // The full string Permit2 hashes: the stub, then the referenced types in order.
        let permit = PermitWitnessTransferFrom::eip712_encode_type();
        assert_eq!(
            permit,
            "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,\
             uint256 deadline,Witness witness)TokenPermissions(address token,uint256 amount)\
             Witness(address to,address facilitator,uint256 validAfter)"
        );
        assert_eq!(
            alloy_primitives::keccak256(permit.as_bytes()),
            b256!("0x51dff6974ad4388c499e7fcfe838d2bd767162553a144098ce20ea661d70c2ee")
        );
    }

    #[test]
    fn an_exact_authorization_signed_by_the_official_client_recovers_its_payer() {
        let authorization = Authorization {
            from: PAYER.to_string(),
            to: PAY_TO.into(),
            value: "10000".into(),
            valid_after: "0".into(),
            valid_before: "1900000000".into(),
            nonce: format!("0x{}", "11".repeat(32)),
        };
        let message = transfer(&authorization).unwrap();
        let domain = token_domain("USD Coin", "2", 84532, parse_address(USDC).unwrap());
        assert_eq!(
            message.eip712_signing_hash(&domain),
            b256!("0xcd4d693204bf9b47bf7879eb5075c8290efb280fef6865900791369691db2621")
        );
        let signature = "0xe6b52bbf6bd474c98d8d95ca956dfb47954e655d3bfd7b42bd1c90bd29f63cf1296a408d9771bf2a3046db5d216f0677590a7b351121bbd139726c2196f7f5741c";
        assert_eq!(signer(&message, &domain, signature).unwrap(), PAYER);
        // One field changed, another signer.
        let more = TransferWithAuthorization {
            value: U256::from(10001),
            ..message
        };
        assert_ne!(signer(&more, &domain, signature).unwrap(), PAYER);
        assert!(signer(&more, &domain, "0x1234").is_err());
    }

    #[test]
    fn an_upto_permit_signed_by_the_official_client_recovers_its_payer() {
        let authorization = Permit2Authorization {
            from: PAYER.to_string(),
            permitted: Permitted {
                token: USDC.into(),
                amount: "5000".into(),
            },
            spender: UPTO_PROXY.to_string(),
            nonce: "105040187967887509351754741175092935626930559580484893584745816789070004449926"
                .into(),
            deadline: "1900000000".into(),
            witness: UptoWitness {
                to: PAY_TO.into(),
                facilitator: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC".into(),
                valid_after: "0".into(),
            },
        };
        let message = permit(&authorization).unwrap();
        let domain = permit2_domain(84532);
        assert_eq!(
            message.eip712_signing_hash(&domain),
            b256!("0x281e558d1be2f188e5fc9d80771c97430186e3c2f215fb805d8ed02abfe88096")
        );
        let signature = "0xcc94821bb1ec57cd89ff708583e331485f889cb2f409911847267e29e82402585785057c8fb075359bd7b808da42798944ddb17239829cb828da0ee31ea9614c1c";
        assert_eq!(signer(&message, &domain, signature).unwrap(), PAYER);
    }

    #[test]
    fn numbers_and_networks_are_read_as_the_clients_write_them() {
        assert_eq!(parse_uint("0x10").unwrap(), U256::from(16));
        assert_eq!(parse_uint("16").unwrap(), U256::from(16));
        assert!(parse_uint("-1").is_err() && parse_uint("1.5").is_err());
        assert_eq!(chain_id("eip155:84532"), Some(84532));
        assert_eq!(chain_id("base-sepolia"), None);
    }
}
