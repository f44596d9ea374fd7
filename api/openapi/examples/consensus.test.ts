import { describe, expect, it } from "vitest";
import { modelMessage, validatorMessage, voteMessage } from "../../../core/consensus/messages.ts";
import { SAMPLE_SEED, sampleSecretKey } from "../../../core/sample-key.ts";
import { publicKeyFromSecret, verify } from "../../../core/signature.ts";
import { consensusWriteExamples, CONSENSUS_WRITE_EXAMPLES, DELIB, DOCUMENTED_GI, SESSION } from "./consensus.ts";

const key = (office: string) => publicKeyFromSecret("ed25519", sampleSecretKey(SAMPLE_SEED, office));

describe("the consensus write examples", () => {
  it("carry real signatures by the offices' sample keys over the documented bytes", () => {
    const vote = CONSENSUS_WRITE_EXAMPLES.postV1ConsensusSessionsByIdVotes.request;
    expect(
      verify(
        "ed25519",
        key("ATLAS"),
        voteMessage({ participant: "ATLAS", session_id: SESSION, vote: vote.vote }),
        vote.signature,
      ),
    ).toBe(true);
    const validated = CONSENSUS_WRITE_EXAMPLES.postV1ConsensusProofsByDelibIdValidator.response.proof;
    const { model_signatures, validator_signature, ...inputs } = validated;
    expect(inputs.delib_id).toBe(DELIB);
    for (const m of model_signatures)
      expect(verify("ed25519", key(m.participant), modelMessage(inputs), m.signature)).toBe(true);
    expect(CONSENSUS_WRITE_EXAMPLES.postV1ConsensusProofsByDelibIdSignatures.request.signature).toBe(
      model_signatures[0]!.signature,
    );
    expect(
      verify("ed25519", key("SOLON"), validatorMessage(inputs, model_signatures), validator_signature!.signature),
    ).toBe(true);
    // A signature over other bytes does not verify: the check above can fail.
    expect(
      verify(
        "ed25519",
        key("ATLAS"),
        modelMessage({ ...inputs, gi_score: inputs.gi_score + 0.0001 }),
        model_signatures[0]!.signature,
      ),
    ).toBe(false);
  });

  it("follow the offices' GI: other readings sign other bytes", () => {
    const moved = consensusWriteExamples({ ...DOCUMENTED_GI, ATLAS: 0.99 }).examples;
    expect(moved.postV1ConsensusProofsByDelibIdSignatures.request.signature).not.toBe(
      CONSENSUS_WRITE_EXAMPLES.postV1ConsensusProofsByDelibIdSignatures.request.signature,
    );
    expect(moved.postV1ConsensusSessionsByIdVotes.request).toEqual(
      CONSENSUS_WRITE_EXAMPLES.postV1ConsensusSessionsByIdVotes.request,
    );
  });
});
