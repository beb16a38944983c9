//! The EIP-712 typed data of x402's two EVM schemes, shared by the server that verifies
//! payments and the SDK that signs them, so both hash exactly the same thing:
//!
//! - `exact`: EIP-3009's [`TransferWithAuthorization`], under the token's own domain
//!   ([`token_domain`]);
//! - `upto`: Permit2's [`PermitWitnessTransferFrom`] with the x402 upto proxy's [`Witness`],
//!   under Permit2's domain ([`permit2_domain`]), spent only by [`UPTO_PROXY`].
//!
//! ```
//! use tokctl_x402::{PermitWitnessTransferFrom, eip712_type_hash};
//! assert_eq!(
//!     eip712_type_hash::<PermitWitnessTransferFrom>().to_string(),
//!     "0x51dff6974ad4388c499e7fcfe838d2bd767162553a144098ce20ea661d70c2ee"
//! );
//! ```

use alloy_primitives::{Address, B256, U256, address, keccak256};
use alloy_sol_types::{Eip712Domain, SolStruct, sol};

sol! {
    /// EIP-3009's authorization, as USDC and every EIP-3009 token define it.
    #[derive(Debug)]
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }

    /// Permit2's token and most it may move.
    #[derive(Debug)]
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    /// The x402 upto proxy's witness: who is paid, who may settle, from when.
    #[derive(Debug)]
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    /// Permit2's signature transfer with the upto witness.
    #[derive(Debug)]
    struct PermitWitnessTransferFrom {
        TokenPermissions permitted;
        address spender;
        uint256 nonce;
        uint256 deadline;
        Witness witness;
    }
}

/// Permit2, at the same address on every chain.
pub const PERMIT2: Address = address!("0x000000000022D473030F116dDEE9F6B43aC78BA3");
/// The x402 upto Permit2 proxy, at the same address on every chain: the only spender an upto
/// authorization may name.
pub const UPTO_PROXY: Address = address!("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002");

/// The chain id of a CAIP-2 `eip155:<id>` network.
pub fn chain_id(network: &str) -> Option<u64> {
    network.strip_prefix("eip155:")?.parse().ok()
}

/// The token's EIP-712 domain (EIP-3009): its `name` and `version` as the contract has them.
pub fn token_domain(name: &str, version: &str, chain_id: u64, token: Address) -> Eip712Domain {
    Eip712Domain::new(
        Some(name.to_string().into()),
        Some(version.to_string().into()),
        Some(U256::from(chain_id)),
        Some(token),
        None,
    )
}

/// Permit2's EIP-712 domain: a name, no version.
pub fn permit2_domain(chain_id: u64) -> Eip712Domain {
    Eip712Domain::new(
        Some("Permit2".into()),
        None,
        Some(U256::from(chain_id)),
        Some(PERMIT2),
        None,
    )
}

/// The type hash of `T` (keccak-256 of its full EIP-712 type string).
pub fn eip712_type_hash<T: SolStruct>() -> B256 {
    keccak256(T::eip712_encode_type().as_bytes())
}
