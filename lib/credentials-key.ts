import { RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CREDENTIALS_PURPOSE } from '../shared/domain/ingestion/credential-context.ts';
import type { CredentialUse } from '../shared/routes.ts';

/** The role tag the key policy reads: only a role tagged `open` may decrypt. */
export const CREDENTIALS_TAG = 'processor-credentials';

/** The one KMS action each use needs: a data key to seal with, or a wrapped one opened. */
export const CREDENTIAL_ACTIONS: Readonly<Record<CredentialUse, string>> = { seal: 'kms:GenerateDataKey', open: 'kms:Decrypt' };

/** What `grant` needs of a function: RouteFunction has both. */
export interface CredentialsGrantee {
  readonly function: LambdaFunction;
  readonly role: IRole;
}

/**
 * The customer-managed KMS key that seals processors' credentials in the table (envelope encryption,
 * shared/envelope.ts), rotated yearly by KMS. Functions get it through `grant`, as their route, job or
 * consumer declares (shared/routes.ts `credentials`): the key's ARN as CREDENTIALS_KEY_ID and the one
 * action the use needs, only under the credentials' encryption context. The key policy adds a guard
 * IAM alone cannot give: Decrypt is denied to every principal but the roles `grant` tagged for opening,
 * so an account-wide `kms:*` (an administrator's, a misplaced policy's) still cannot read a secret.
 */
export class CredentialsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: `${Stack.of(this).stackName}: seals processor credentials (Stripe and Braintree secrets, webhook secrets) stored in the table`,
      enableKeyRotation: true,
      // The table outlives the stack (it is retained); without this key its credentials could never be opened again.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'DecryptOnlyByFunctionsThatOpenCredentials',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: [CREDENTIAL_ACTIONS.open],
        resources: ['*'],
        conditions: { StringNotEquals: { [`aws:PrincipalTag/${CREDENTIALS_TAG}`]: 'open' } },
      }),
    );
  }

  /** Lets a function seal or open credentials, and tells it the key. */
  grant(use: CredentialUse, grantee: CredentialsGrantee): void {
    grantee.function.addEnvironment('CREDENTIALS_KEY_ID', this.key.keyArn);
    grantee.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [CREDENTIAL_ACTIONS[use]],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': CREDENTIALS_PURPOSE } },
      }),
    );
    if (use === 'open') Tags.of(grantee.role).add(CREDENTIALS_TAG, 'open');
  }
}
