// Identity, namespaces and access as plain functions: no Nest, TypeORM or HTTP here. Services ask
// the database for roles and rows, and these rules decide.
export * from './roles';
export * from './namespaces';
export * from './names';
export * from './scope-access';
export * from './group-access';
export * from './task-access';
export * from './readable-scope.sql';
