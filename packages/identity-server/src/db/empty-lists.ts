import {
  BinaryOperationNode,
  OperationNodeTransformer,
  OperatorNode,
  ValueNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/** `x in ()` becomes the false `1 = 0` and `x not in ()` the true `1 = 1`, so no query carries an empty list. */
class EmptyListTransformer extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode, queryId?: Parameters<OperationNodeTransformer['transformNode']>[1]): BinaryOperationNode {
    const out = super.transformBinaryOperation(node, queryId);
    const op = OperatorNode.is(out.operator) ? out.operator.operator : undefined;
    if (op !== 'in' && op !== 'not in') return out;
    const right = out.rightOperand;
    const empty = (right.kind === 'PrimitiveValueListNode' || right.kind === 'ValueListNode') && (right as unknown as { values: readonly unknown[] }).values.length === 0;
    if (!empty) return out;
    return BinaryOperationNode.create(ValueNode.createImmediate(1), OperatorNode.create('='), ValueNode.createImmediate(op === 'in' ? 0 : 1));
  }
}

/**
 * Kysely plugin for every connection: SQLite accepts `in ()` but PostgreSQL answers a syntax error (a 500 for a request
 * whose list happened to be empty, e.g. a whole-bucket write of `{}`). Rewriting at the query tree fixes the class for
 * every query, present and future, instead of a guard at each call site.
 */
export class NoEmptyListsPlugin implements KyselyPlugin {
  readonly #transformer = new EmptyListTransformer();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
