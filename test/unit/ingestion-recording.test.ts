import { describe, expect, it } from 'vitest';
import { itemsOf } from '../../bench/floor/calls.mjs';
import { eventFigures, forTable } from '../../bench/ingestion-recording.ts';

const key = (sk: string) => ({ pk: { S: 'TENANT#mer_1#test#0' }, sk: { S: sk } });

describe('the same-requests floor\'s recording', () => {
  it('aims every part of a request at the floor\'s table and leaves the rest as sent', () => {
    // Prepare
    const transaction = {
      operation: 'TransactWriteItems',
      input: {
        TransactItems: [
          { Put: { TableName: 'recorded', Item: key('PAYMENT#pay_1'), ConditionExpression: 'attribute_not_exists(pk)' } },
          { Update: { TableName: 'recorded', Key: key('COUNTER#all'), UpdateExpression: 'ADD #n :one' } },
        ],
        ClientRequestToken: 'a'.repeat(36),
      },
    };
    const batch = { operation: 'BatchGetItem', input: { RequestItems: { recorded: { Keys: [key('CUSTREF#c'), key('PAYREF#p')], ConsistentRead: true } } } };
    // Act
    const aimed = forTable(transaction, 'floor');
    const aimedBatch = forTable(batch, 'floor');
    // Assess
    expect(aimed.input).toEqual({
      TransactItems: [
        { Put: { TableName: 'floor', Item: key('PAYMENT#pay_1'), ConditionExpression: 'attribute_not_exists(pk)' } },
        { Update: { TableName: 'floor', Key: key('COUNTER#all'), UpdateExpression: 'ADD #n :one' } },
      ],
      ClientRequestToken: expect.stringMatching(/^[0-9a-f]{36}$/),
    });
    expect((aimed.input as { ClientRequestToken: string }).ClientRequestToken).not.toBe('a'.repeat(36));
    expect(forTable(transaction, 'floor')).toEqual(aimed);
    expect(aimedBatch).toEqual({ operation: 'BatchGetItem', input: { RequestItems: { floor: batch.input.RequestItems.recorded } } });
    expect(transaction.input.TransactItems[0]!.Put!.TableName).toBe('recorded');
  });

  it('refuses a batch over several tables rather than merge them', () => {
    expect(() => forTable({ operation: 'BatchWriteItem', input: { RequestItems: { a: [], b: [] } } }, 'floor')).toThrow('2 tables');
  });

  it('counts an event\'s requests and the items they name', () => {
    // Prepare
    const rounds = [
      [{ operation: 'GetItem', input: { TableName: 't', Key: key('CONNECTION') } }],
      [{ operation: 'BatchGetItem', input: { RequestItems: { t: { Keys: [key('a'), key('b'), key('c')] } } } }],
      [
        { operation: 'TransactWriteItems', input: { TransactItems: [{ Put: {} }, { Update: {} }, { ConditionCheck: {} }] } },
        { operation: 'BatchWriteItem', input: { RequestItems: { t: [{ PutRequest: {} }, { DeleteRequest: {} }] } } },
      ],
    ];
    // Act
    const figures = eventFigures(rounds);
    // Assess
    expect(figures).toEqual({ requests: 4, items: 1 + 3 + 3 + 2 });
    expect(itemsOf('Query', { TableName: 't' })).toBe(1);
    expect(eventFigures([])).toEqual({ requests: 0, items: 0 });
  });
});
