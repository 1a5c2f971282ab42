import { expect } from 'chai';
import { Decimal128, Double, Int32, Long, type Collection, type Document } from 'mongodb';
import { useMongo } from '../../support/mongo-target.js';

/** The BSON type name of a value read with promoteValues: false. */
function bsonType(value: unknown): string {
  if (value && typeof value === 'object' && '_bsontype' in value) return (value as { _bsontype: string })._bsontype;
  return typeof value;
}

/** Reads a document without promoting BSON numbers to JS numbers. */
async function readRaw(coll: Collection, id: string): Promise<Document> {
  const doc = await coll.findOne({ _id: id } as Document, { promoteValues: false, promoteLongs: false });
  if (!doc) throw new Error(`document ${id} not found`);
  return doc;
}

function expectTyped(doc: Document, field: string, type: string, value: string): void {
  const actual = doc[field] as { toString(): string } | undefined;
  expect(bsonType(actual), `${field}: BSON type`).to.equal(type);
  const text = type === 'Double' ? String((actual as Double).value) : String(actual);
  expect(text, `${field}: value`).to.equal(value);
}

describe('embedded mongo: BSON number types round-trip unchanged', function () {
  const m = useMongo('numbers');

  const sample = (): Document => ({
    _id: 'nums',
    i: new Int32(5),
    l: Long.fromNumber(7),
    big: Long.fromString('9007199254740993'),
    d: new Double(3),
    f: 2.5,
    dec: Decimal128.fromString('1.10'),
  });

  function expectSampleTypes(doc: Document): void {
    expectTyped(doc, 'i', 'Int32', '5');
    expectTyped(doc, 'l', 'Long', '7');
    expectTyped(doc, 'big', 'Long', '9007199254740993');
    expectTyped(doc, 'd', 'Double', '3');
    expectTyped(doc, 'f', 'Double', '2.5');
    expectTyped(doc, 'dec', 'Decimal128', '1.10');
  }

  it('insert then find keeps int32, int64 (beyond 2^53), double (incl. integral 3.0), decimal128', async function () {
    const coll = m.fresh('roundtrip');
    await coll.insertOne(sample());
    expectSampleTypes(await readRaw(coll, 'nums'));
  });

  it('the types survive an unrelated $set on another field', async function () {
    const coll = m.fresh('after_set');
    await coll.insertOne(sample());
    await coll.updateOne({ _id: 'nums' } as Document, { $set: { other: 'x' } });
    const doc = await readRaw(coll, 'nums');
    expectSampleTypes(doc);
    expect(doc.other).to.equal('x');
  });

  it('the types survive findOneAndUpdate (returned document read with promoteValues: false)', async function () {
    const coll = m.fresh('via_fam');
    await coll.insertOne(sample());
    const returned = await coll.findOneAndUpdate(
      { _id: 'nums' } as Document,
      { $set: { touched: true } },
      { returnDocument: 'after', promoteValues: false, promoteLongs: false },
    );
    expectSampleTypes(returned!);
  });

  it('the types survive replaceOne', async function () {
    const coll = m.fresh('via_replace');
    await coll.insertOne({ _id: 'nums', placeholder: true } as Document);
    await coll.replaceOne({ _id: 'nums' } as Document, sample());
    expectSampleTypes(await readRaw(coll, 'nums'));
  });

  it('the types survive an aggregation pipeline ($match only)', async function () {
    const coll = m.fresh('via_aggregate');
    await coll.insertOne(sample());
    const [viaAggregate] = await coll.aggregate([{ $match: { _id: 'nums' } }], { promoteValues: false, promoteLongs: false }).toArray();
    expectSampleTypes(viaAggregate!);
  });

  it('$type queries see the stored BSON types (int, long, double, decimal each match only their own)', async function () {
    const coll = m.fresh('type_query');
    await coll.insertOne(sample());
    const matchingTypes = async (field: string): Promise<string[]> => {
      const types: string[] = [];
      for (const type of ['int', 'long', 'double', 'decimal']) {
        if ((await coll.countDocuments({ [field]: { $type: type } })) === 1) types.push(type);
      }
      return types;
    };
    expect(await matchingTypes('i'), 'i').to.deep.equal(['int']);
    expect(await matchingTypes('l'), 'l').to.deep.equal(['long']);
    expect(await matchingTypes('big'), 'big').to.deep.equal(['long']);
    expect(await matchingTypes('d'), 'd').to.deep.equal(['double']);
    expect(await matchingTypes('f'), 'f').to.deep.equal(['double']);
    expect(await matchingTypes('dec'), 'dec').to.deep.equal(['decimal']);
    expect(await coll.countDocuments({ i: { $type: 'number' } }), '$type: "number" matches any numeric type').to.equal(1);
  });

  describe('$inc keeps the stored type', function () {
    let coll: Collection;
    beforeEach(async function () {
      coll = m.fresh('inc');
      await coll.insertOne({ _id: 'c', i: new Int32(5), l: Long.fromNumber(7), d: new Double(3), f: 2.5 } as Document);
    });

    it('int32 + Int32 stays int32', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { i: new Int32(1) } });
      expectTyped(await readRaw(coll, 'c'), 'i', 'Int32', '6');
    });

    it('int64 + Int32 stays int64', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { l: new Int32(1) } });
      expectTyped(await readRaw(coll, 'c'), 'l', 'Long', '8');
    });

    it('double + Int32 stays double (also for an integral double)', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { d: new Int32(1), f: new Int32(1) } });
      const doc = await readRaw(coll, 'c');
      expectTyped(doc, 'd', 'Double', '4');
      expectTyped(doc, 'f', 'Double', '3.5');
    });

    it('a plain JS integer increment (sent as int32) keeps int32 and int64 fields as they are', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { i: 2, l: 2, d: 2 } });
      const doc = await readRaw(coll, 'c');
      expectTyped(doc, 'i', 'Int32', '7');
      expectTyped(doc, 'l', 'Long', '9');
      expectTyped(doc, 'd', 'Double', '5');
    });

    it('int32 + Long becomes int64; int32 + 0.5 becomes double', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { i: Long.fromNumber(1) } });
      expectTyped(await readRaw(coll, 'c'), 'i', 'Long', '6');
      await coll.updateOne({ _id: 'c' } as Document, { $set: { j: new Int32(1) } });
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { j: 0.5 } });
      expectTyped(await readRaw(coll, 'c'), 'j', 'Double', '1.5');
    });

    it('int32 overflow promotes to int64 (2147483647 + 1)', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $set: { max: new Int32(2147483647) } });
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { max: new Int32(1) } });
      expectTyped(await readRaw(coll, 'c'), 'max', 'Long', '2147483648');
    });

    it('$inc on a missing field creates it with the increment type', async function () {
      await coll.updateOne({ _id: 'c' } as Document, { $inc: { newInt: new Int32(3), newLong: Long.fromNumber(4) } });
      const doc = await readRaw(coll, 'c');
      expectTyped(doc, 'newInt', 'Int32', '3');
      expectTyped(doc, 'newLong', 'Long', '4');
    });
  });

  it('default reads promote int32/double to numbers and keep large int64 exact as Long', async function () {
    const coll = m.fresh('promoted');
    await coll.insertOne(sample());
    const doc = await coll.findOne({ _id: 'nums' } as Document);
    expect(doc!.i).to.equal(5);
    expect(doc!.d).to.equal(3);
    expect(doc!.f).to.equal(2.5);
    expect(doc!.l).to.equal(7);
    expect(bsonType(doc!.big)).to.equal('Long');
    expect(String(doc!.big)).to.equal('9007199254740993');
  });
});
