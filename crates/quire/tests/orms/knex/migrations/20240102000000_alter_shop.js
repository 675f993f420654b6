// One change of each kind: add, rename and drop a column, alter a type,
// add an index.
exports.up = async (knex) => {
  await knex.schema.alterTable('book', (t) => {
    t.string('subtitle', 100).notNullable().defaultTo('');
    t.renameColumn('meta', 'details');
  });
  await knex.schema.alterTable('book', (t) => {
    t.string('title', 250).notNullable().alter();
    t.index(['price'], 'book_price_idx');
  });
  await knex.schema.alterTable('author', (t) => {
    t.dropColumn('born');
  });
};

exports.down = async (knex) => {
  await knex.schema.alterTable('author', (t) => {
    t.date('born');
  });
  await knex.schema.alterTable('book', (t) => {
    t.dropIndex(['price'], 'book_price_idx');
    t.string('title', 200).notNullable().alter();
  });
  await knex.schema.alterTable('book', (t) => {
    t.renameColumn('details', 'meta');
    t.dropColumn('subtitle');
  });
};
