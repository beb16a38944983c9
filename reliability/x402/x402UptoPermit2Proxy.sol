// SPDX-License-Identifier: MIT
// A replica, for a local chain only, of x402's x402UptoPermit2Proxy (x402-foundation/x402,
// contracts/evm/src/x402UptoPermit2Proxy.sol): written from its ABI and specification, not a
// copy of its source, and not byte-identical to the contract x402 deploys. The same settle()
// signature, witness type string and checks (amount <= permitted, caller == witness.facilitator,
// owner and destination not zero, not before validAfter), redeeming the payer's Permit2
// PermitWitnessTransferFrom for `amount`. Left out: settleWithPermit (EIP-2612 gas sponsoring,
// which x402_chain.sh does not use). Its one immutable is PERMIT2, so its runtime code can be
// copied with anvil_setCode to the canonical address 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002
// that x402's SDKs hard-code. Compiled by compile.sh (artifacts.json).
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

contract x402UptoPermit2Proxy is ReentrancyGuardTransient {
    ISignatureTransfer public immutable PERMIT2;

    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    error AmountExceedsPermitted();
    error UnauthorizedFacilitator();
    error InvalidAmount();
    error InvalidOwner();
    error InvalidDestination();
    error PaymentTooEarly();

    event Settled();

    constructor(address permit2) {
        PERMIT2 = ISignatureTransfer(permit2);
    }

    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (amount == 0) revert InvalidAmount();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
        emit Settled();
    }
}
