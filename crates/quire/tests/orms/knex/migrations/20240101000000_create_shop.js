// The shop schema: tables with foreign keys, a unique key and an index.
exports.up = async (knex) => {
  await knex.schema.createTable('author', (t) => {
    t.increments('id');
    t.string('name', 100).notNullable().unique();
    t.date('born');
    t.boolean('active').notNullable().defaultTo(true);
  });
  await knex.schema.createTable('book', (t) => {
    t.bigIncrements('id');
    t.integer('author_id').unsigned().notNullable().references('author.id').onDelete('CASCADE');
    t.string('title', 200).notNullable();
    t.integer('pages').notNullable();
    t.decimal('price', 8, 2).notNullable();
    t.json('meta');
    t.timestamp('published').notNullable().defaultTo(knex.fn.now());
    t.unique(['author_id', 'title']);
    t.index(['published'], 'book_published_idx');
  });
};

exports.down = async (knex) => {
  await knex.schema.dropTable('book');
  await knex.schema.dropTable('author');
};
